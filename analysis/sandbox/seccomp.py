"""The seccomp filter loaded into the sandbox (bubblewrap's `--seccomp FD`).

A deny list on top of "allow": the frameworks use a wide and changing set of
ordinary system calls, so an allow list would break with every release. What
is denied is what lets code leave or see past its namespaces: debugging other
processes, mounting, new namespaces, kernel keyrings, eBPF, perf, module and
kexec loading, io_uring (a second syscall path with its own history of
escapes), personality flags that weaken ASLR, memory the parent cannot count
(memfd_create, SysV shared memory), and every socket family except AF_UNIX
(no host socket is mounted, so AF_UNIX reaches only the box itself).

The program is compiled by libseccomp (through the ctypes binding pyseccomp),
which also pins the architecture: a syscall made through another ABI
(int 0x80, x32) kills the process. Compiled once per worker process.
"""
from __future__ import annotations

import errno
import functools
import os

# Denied with EPERM, so Python code sees PermissionError and the check reports it.
DENIED = (
    # other processes' memory and state
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",
    "migrate_pages", "move_pages",
    # mounts and filesystem roots
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr", "open_by_handle_at", "name_to_handle_at",
    # namespaces
    "unshare", "setns",
    # kernel keyrings, eBPF, perf, userfaultfd, io_uring
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # the kernel itself
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
    "swapoff", "acct", "syslog", "quotactl", "quotactl_fd", "iopl", "ioperm", "uselib", "vhangup",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "fanotify_init", "lookup_dcookie", "nfsservctl",
    # memory the parent's resident-set count cannot see: anonymous files and SysV shared memory
    # (/tmp, /dev/shm and the home are size-capped tmpfs mounts instead)
    "memfd_create", "memfd_secret", "shmget", "shmat",
)

AF_UNIX = 1
# Namespace flags of clone(2); unshare/setns are denied whole above.
CLONE_NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
# personality(2) flags that switch off address-space randomisation or make data executable.
PERSONALITY_FLAGS = {"ADDR_NO_RANDOMIZE": 0x0040000, "MMAP_PAGE_ZERO": 0x0100000,
                     "ADDR_COMPAT_LAYOUT": 0x0200000, "READ_IMPLIES_EXEC": 0x0400000}
# Terminal input injection; the box has no terminal (--new-session), this is belt and braces.
IOCTL_DENIED = {"TIOCSTI": 0x5412, "TIOCLINUX": 0x541C}


class SeccompUnavailable(RuntimeError):
    """libseccomp or its binding is missing: the box cannot be built."""


@functools.lru_cache(maxsize=1)
def compiled() -> tuple[bytes, tuple[str, ...]]:
    """(BPF program, syscall names this libseccomp does not know and so left out)."""
    try:
        import pyseccomp as sc
    except (ImportError, RuntimeError, OSError) as exc:  # the binding raises when libseccomp.so is missing
        raise SeccompUnavailable(f"libseccomp is not usable: {exc}") from exc
    deny = sc.ERRNO(errno.EPERM)
    flt = sc.SyscallFilter(sc.ALLOW)
    flt.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
    unknown = []
    for name in DENIED:
        try:
            flt.add_rule(deny, name)
        except (OSError, ValueError, RuntimeError):
            unknown.append(name)  # older kernels/libseccomp: the call does not exist there either
    flt.add_rule(deny, "socket", sc.Arg(0, sc.NE, AF_UNIX))
    flt.add_rule(deny, "socketpair", sc.Arg(0, sc.NE, AF_UNIX))
    for flag in CLONE_NAMESPACE_FLAGS.values():
        flt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory, which seccomp cannot read: answer ENOSYS so
    # glibc falls back to clone(2), whose flags are checked above.
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for flag in PERSONALITY_FLAGS.values():
        flt.add_rule(deny, "personality", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    for request in IOCTL_DENIED.values():
        flt.add_rule(deny, "ioctl", sc.Arg(1, sc.EQ, request))
    fd = os.memfd_create("sandbox-seccomp", os.MFD_CLOEXEC)
    try:
        with open(fd, "wb", closefd=False) as fh:
            flt.export_bpf(fh)
        os.lseek(fd, 0, os.SEEK_SET)
        program = b""
        while chunk := os.read(fd, 1 << 16):
            program += chunk
    finally:
        os.close(fd)
    return program, tuple(unknown)


def program_fd() -> int:
    """A fresh, inheritable file descriptor holding the program, positioned at 0."""
    program, _ = compiled()
    fd = os.memfd_create("sandbox-seccomp")  # close-on-exec; handed over through pass_fds
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def summary() -> str:
    _, unknown = compiled()
    text = ("deny-list filter: ptrace and process_vm_*, mount/umount and new roots, unshare/setns and namespace "
            "clone flags, keyctl/add_key, bpf, perf_event_open, userfaultfd, io_uring, kexec and module loading, "
            "ASLR-weakening personality flags, memfd_create and SysV shared memory, sockets other than AF_UNIX; "
            "other architectures killed")
    return text + (f" (unknown here, so not listed: {', '.join(unknown)})" if unknown else "")

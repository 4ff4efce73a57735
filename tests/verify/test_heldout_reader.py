"""The held-out bench's reader (bench/heldout_calls.py): PaConvert-shaped test files are read with ast,
never run; the sample's order comes from the seed alone. The file below is written here, in that layout."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.heldout_calls import FINAL, family, instrument, read_cases, sample_files, sample_ranks, with_half  # noqa: E402
from bench.heldout_sample import candidates  # noqa: E402
from bench.heldout_sample import test_file as paconvert_file  # noqa: E402 (not collected as a test)

FILE = '''
import textwrap

from apibase import APIBase

obj = APIBase("torch.Tensor.clamp")


def test_case_1():
    pytorch_code = textwrap.dedent(
        """
        import torch
        v = torch.tensor([-2.0, 0.5, 3.0])
        out = v.clamp(min=-1.0)
        """
    )
    obj.run(pytorch_code, ["out"], check_value=False)


def test_case_kinds():
    kinds = ["torch.float32", "torch.float64"]
    for kind in kinds:
        pytorch_code = textwrap.dedent(
            f"""
            import torch
            out = torch.ones(2, dtype={kind}).clamp(max=0.5)
            """
        )
        obj.run(pytorch_code, ["out"])


def _test_case_disabled():
    pytorch_code = textwrap.dedent(
        """
        import torch
        flag = torch.tensor([1.0]).clamp(0, 1).is_floating_point()
        """
    )
    obj.run_bool(pytorch_code, ["flag"])


def test_case_nothing_compared():
    pytorch_code = textwrap.dedent(
        """
        import torch
        torch.tensor([1.0]).clamp(0, 1)
        """
    )
    obj.run(pytorch_code)
'''


def test_cases_are_read_without_running_the_file(tmp_path):
    path = tmp_path / "test_Tensor_clamp.py"
    path.write_text(FILE + "\nraise SystemExit('the file was run')\n", encoding="utf-8")
    cases = read_cases(path, "torch.Tensor.clamp")
    assert [c["test"] for c in cases] == ["test_case_1", "test_case_kinds[torch.float32]",
                                         "test_case_kinds[torch.float64]", "_test_case_disabled",
                                         "test_case_nothing_compared"]
    assert cases[0]["names"] == ["out"] and cases[0]["check_value"] is False
    assert "dtype=torch.float64" in cases[2]["code"] and "{kind}" not in cases[2]["code"]
    assert cases[3]["names"] == ["flag"] and cases[4]["names"] == []
    prepared = instrument(cases[0]["code"], cases[0]["names"], cases[0]["api"])
    assert prepared.rstrip().endswith(f"_record({FINAL}, out=out)")


def test_a_header_naming_another_api_takes_the_sampled_one(tmp_path):
    path = tmp_path / "test_Tensor_clamp.py"
    path.write_text(FILE.replace('APIBase("torch.Tensor.clamp")', 'APIBase("torch.sgn")'), encoding="utf-8")
    assert {c["api"] for c in read_cases(path, "torch.Tensor.clamp")} == {"torch.Tensor.clamp"}


def test_the_sample_order_is_the_seeds_and_files_follow_it(tmp_path):
    order = candidates()
    assert order == candidates() and len(order) > 1000 and order != sorted(order)
    assert paconvert_file("torch.nn.functional.relu") == "tests/test_nn_functional_relu.py"
    assert paconvert_file("torch.Tensor.abs") == "tests/test_Tensor_abs.py"
    picked = [order[7], order[3]]
    for api in picked:
        (tmp_path / Path(paconvert_file(api)).name).write_text(FILE, encoding="utf-8")
    files, last = sample_files(tmp_path, None)
    assert [api for _, api in files] == [order[3], order[7]] and last == 8
    assert family("torch.linalg.det") == "others" and family("torch.Tensor.abs") == "torch.Tensor"


def test_a_later_half_starts_past_the_first_candidate_and_keeps_the_other_half(tmp_path):
    order = candidates()
    for api in (order[300], order[220]):
        (tmp_path / Path(paconvert_file(api)).name).write_text(FILE, encoding="utf-8")
    files, first, last = sample_ranks(tmp_path, None)
    assert [api for _, api in files] == [order[220], order[300]] and (first, last) == (221, 301)
    report = with_half({"halves": {"dev": {"files": 184}}}, "test", {"files": 2}, {"torch": "t"})
    assert report["halves"] == {"dev": {"files": 184}, "test": {"files": 2}} and report["torch"] == "t"
    assert with_half(report, "dev", {"files": 3}, {})["halves"]["test"] == {"files": 2}


def test_each_half_has_its_own_folder_and_a_session_start_key_keeps_the_others():
    from bench.heldout_calls import HALF_DIRS

    assert set(HALF_DIRS) == {"dev", "test", "test2", "test3", "test4", "test5", "test6", "test7"} \
        and len(set(HALF_DIRS.values())) == 8
    report = {"halves": {"dev": {"files": 184}, "test": {"files": 121}}}
    report = with_half(report, "test2_start", {"files": 120}, {})
    assert report["halves"]["test"] == {"files": 121} and report["halves"]["test2_start"] == {"files": 120}
    assert with_half(report, "test2_end", {"files": 120}, {})["halves"]["test2_start"] == {"files": 120}

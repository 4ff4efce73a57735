"""`manage.py kb_recheck RUN_ID [--json]`: analyse a run's snapshot again with the
current knowledge base and print which findings changed because of it."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from porting_site.projects.kb import RecheckUnavailable, kb_recheck
from porting_site.projects.models import Run


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("run_id", type=int)
        parser.add_argument("--json", action="store_true", help="print the stored re-check as JSON")

    def handle(self, *args, run_id: int, **options):
        run = Run.objects.filter(pk=run_id).select_related("project").first()
        if run is None:
            raise CommandError(f"no run with id {run_id}")
        try:
            recheck = kb_recheck(run=run)
        except RecheckUnavailable as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps({"run": run.pk, "kb_before": recheck.kb_before, "kb_after": recheck.kb_after,
                                          "counts": recheck.counts, "changes": recheck.changes}, indent=2))
            return
        c = recheck.counts
        self.stdout.write(f"run {run} analysed with knowledge base {recheck.kb_before or '?'}; "
                          f"re-analysed with {recheck.kb_after}")
        self.stdout.write(f"{c['added']} added, {c['removed']} removed, {c['changed']} changed, "
                          f"{c['unchanged']} unchanged")
        for change in recheck.changes[:50]:
            detail = ""
            if change["kind"] == "changed":
                detail = ", ".join(f"{k} {change['before'][k]} -> {change['after'][k]}"
                                   for k in change["before"] if change["before"][k] != change["after"][k] and k != "message")
            self.stdout.write(f"  {change['kind']:8} {change['path']}:{change['line']} {change['rule_id']} "
                              f"{change['torch_api']} {detail}".rstrip())

from django.core.management.base import BaseCommand

from porting_site.projects.services import run_fail_stuck


class Command(BaseCommand):
    help = "Mark runs that stopped making progress as failed (also runs every 5 minutes under celery beat)."

    def add_arguments(self, parser):
        parser.add_argument("--minutes", type=int, default=None, help="override PORTING_STUCK_RUN_SECONDS")

    def handle(self, *args, minutes=None, **options):
        failed = run_fail_stuck(limit_s=minutes * 60 if minutes is not None else None)
        self.stdout.write(f"marked {len(failed)} stuck run(s) failed: {failed}")

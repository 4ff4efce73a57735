"""Create a demo team, user and project, and queue the sample repository once.

Idempotent: running it again reuses what exists and queues no second run.
"""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand

from analysis.archive import pack_tree
from porting_site.accounts.models import Membership, Team
from porting_site.accounts.services import membership_add, team_create
from porting_site.projects.models import Project
from porting_site.projects.services import project_create, run_create

SAMPLE = Path(settings.BASE_DIR) / "samples" / "pytorch_sample"




class Command(BaseCommand):
    help = "Create the demo user, team and project and analyse the sample PyTorch repository."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo-password")

    def handle(self, *args, username, password, **options):
        from django.contrib.auth import get_user_model

        User = get_user_model()
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_password(password)
            user.is_staff = user.is_superuser = True
            user.save()
        team = Team.objects.filter(slug="demo-team").first() or team_create(name="Demo team", admin=user)
        membership_add(team=team, user=user, role=Membership.Role.ADMIN)
        project = Project.objects.filter(team=team, slug="sample-pytorch").first()
        if project is None:
            project = project_create(team=team, name="Sample PyTorch", description="LeNet, an MLP and a training loop.")
        if not project.runs.exists():
            upload = SimpleUploadedFile("pytorch_sample.tar.gz", pack_tree(SAMPLE, "pytorch_sample"), "application/gzip")
            run_create(project=project, archive=upload, user=user)
            self.stdout.write("queued the sample repository for analysis")
        self.stdout.write(f"login: {username} / {password if created else '(unchanged password)'}")

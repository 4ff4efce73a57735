from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.text import slugify

from .models import Membership, Team


@transaction.atomic
def team_create(*, name: str, admin=None) -> Team:
    team = Team.objects.create(name=name, slug=slugify(name))
    if admin is not None:
        Membership.objects.create(team=team, user=admin, role=Membership.Role.ADMIN)
    return team


@transaction.atomic
def membership_add(*, team: Team, user, role: str = Membership.Role.MEMBER) -> Membership:
    membership, _ = Membership.objects.update_or_create(team=team, user=user, defaults={"role": role})
    return membership


def user_create(*, username: str, password: str, email: str = ""):
    return get_user_model().objects.create_user(username=username, password=password, email=email)

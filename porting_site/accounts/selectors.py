from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from .models import Membership, Team


def team_list_for_user(*, user: AbstractBaseUser):
    return Team.objects.filter(memberships__user=user).order_by("name")


def user_is_member(*, user: AbstractBaseUser, team: Team) -> bool:
    return Membership.objects.filter(user=user, team=team).exists()

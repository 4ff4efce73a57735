"""python manage.py api_token create|revoke|list USER [--name NAME]"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from porting_site.api.tokens import token_create, token_list, token_revoke


class Command(BaseCommand):
    help = "Create, list or revoke a user's API tokens (the key is printed once, on create)."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["create", "revoke", "list"])
        parser.add_argument("username")
        parser.add_argument("--name", help="token name (create: defaults to 'default'; revoke: only this one)")

    def handle(self, *args, action: str, username: str, name: str | None, **options):
        try:
            user = get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(f"no user named {username!r}") from None
        if action == "create":
            _, key = token_create(user=user, name=name or "default")
            self.stdout.write(key)
        elif action == "revoke":
            count = token_revoke(user=user, name=name)
            if not count:
                raise CommandError("no matching token")
            self.stdout.write(f"revoked {count} token(s)")
        else:
            for token in token_list(user=user):
                used = token.last_used_at.isoformat() if token.last_used_at else "never"
                self.stdout.write(f"{token.pk}\t{token.name}\t{token.prefix}…\tcreated {token.created_at:%Y-%m-%d}\tused {used}")

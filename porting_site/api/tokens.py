"""Creating, revoking and checking API tokens."""
from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .models import ApiToken

KEY_PREFIX = "pt_"


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def token_create(*, user, name: str = "default") -> tuple[ApiToken, str]:
    """A new token for the user; returns the row and the key (shown only now)."""
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name[:100] or "default", prefix=key[:10], key_hash=_hash(key))
    return token, key


def token_revoke(*, user, token_id: int | None = None, name: str | None = None) -> int:
    """Delete the user's token(s) by id, by name, or all; returns how many."""
    tokens = ApiToken.objects.filter(user=user)
    if token_id is not None:
        tokens = tokens.filter(pk=token_id)
    if name is not None:
        tokens = tokens.filter(name=name)
    count, _ = tokens.delete()
    return count


def token_list(*, user):
    return ApiToken.objects.filter(user=user)


def token_authenticate(key: str) -> ApiToken | None:
    token = ApiToken.objects.select_related("user").filter(key_hash=_hash(key)).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    touch = settings.PORTING_API_TOKEN_TOUCH_SECONDS
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > touch:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token

"""`Authorization: Token <key>` with hashed, per-user, revocable keys."""
from __future__ import annotations

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from .tokens import token_authenticate


class ApiTokenAuthentication(TokenAuthentication):
    # A subclass so drf-spectacular documents it as the usual token scheme.
    keyword = "Token"

    def authenticate_credentials(self, key):
        token = token_authenticate(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return token.user, token

"""The token page: list, create (the key is shown once) and revoke API tokens."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from . import tokens


@login_required
def token_page(request):
    if request.method == "POST":
        if "revoke" in request.POST:
            try:
                token_id = int(request.POST["revoke"])
            except ValueError:
                token_id = -1
            if tokens.token_revoke(user=request.user, token_id=token_id):
                messages.success(request, "The token was revoked.")
            return redirect("api:token-page")
        _, key = tokens.token_create(user=request.user, name=request.POST.get("name", "").strip() or "default")
        # Rendered directly (not redirected) so the key is never stored in the session.
        return render(request, "api/tokens.html", {"tokens": tokens.token_list(user=request.user), "new_key": key})
    return render(request, "api/tokens.html", {"tokens": tokens.token_list(user=request.user)})

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


def client_script(request):
    """The CI client, so a pipeline can fetch it from the dashboard it talks to (no secrets in it)."""
    from django.conf import settings
    from django.http import FileResponse, Http404

    path = settings.BASE_DIR / "tools" / "porting_ci.py"
    if not path.is_file():
        raise Http404("the CI client is not part of this installation")
    return FileResponse(path.open("rb"), content_type="text/x-python; charset=utf-8", filename="porting_ci.py")

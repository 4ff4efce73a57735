# One image for the web server and every worker; the command picks the role.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
# bubblewrap + libseccomp: the parity worker runs uploaded model code only inside a bubblewrap
# box with a seccomp filter (analysis/sandbox); without them parity refuses to run it.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap libseccomp2 \
 && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml ./
COPY analysis ./analysis
COPY porting_site ./porting_site
COPY workers ./workers
COPY templates ./templates
COPY samples ./samples
COPY manage.py ./
# torch first, alone, from the CPU index: the GPU image (Dockerfile.gpu) differs only here.
RUN pip install --index-url https://download.pytorch.org/whl/cpu "torch==2.13.0" \
 && pip install -e . \
 && DJANGO_SECRET_KEY=build-only DJANGO_SETTINGS_MODULE=porting_site.settings.production \
    python manage.py collectstatic --no-input -v 0
RUN useradd --create-home porting && mkdir -p /var/porting && chown porting /var/porting
USER porting
ENV PORTING_VAR_DIR=/var/porting
EXPOSE 8000
CMD ["gunicorn", "porting_site.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120"]

# One image for web, worker and beat (docker-compose.yml reuses it).
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 UV_PROJECT_ENVIRONMENT=/opt/venv PATH=/opt/venv/bin:$PATH
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-noto-cjk libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 \
 && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir "uv==0.13.9"
WORKDIR /app
COPY pyproject.toml uv.lock ./
RUN uv sync --frozen --no-dev --no-install-project
COPY . .
RUN DJANGO_SETTINGS_MODULE=ecomap.settings.base python manage.py collectstatic --no-input -v0
RUN useradd --create-home ecomap && chown -R ecomap /app
USER ecomap
EXPOSE 8000
# Production settings by default: DEBUG off, SECRET_KEY and ALLOWED_HOSTS from the environment.
ENV DJANGO_SETTINGS_MODULE=ecomap.settings.production
# Threads, not more processes: a request spends much of its time waiting on PostgreSQL and
# Redis, and 2 processes x 8 threads served 2.5x the 3 sync workers' requests under 50 clients
# (docs/benchmarks.md, bench/load).
CMD ["gunicorn", "ecomap.wsgi", "--bind", "0.0.0.0:8000", "--worker-class", "gthread", "--workers", "2", "--threads", "8"]

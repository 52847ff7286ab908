# The two commands of the README are `make demo` and `make test`; everything else is a step of them.
PY := .venv/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: demo test deps runtime-deps system-deps services lint format messages check-deploy compose-config serve worker

# The demo runs with DEBUG off, so a wrong address shows the site's own 404 page (not Django's
# list of URL patterns); WhiteNoise serves the static files from the app folders all the same.
demo: runtime-deps  ## install the runtime dependencies, migrate, load the catalog, create the demo account, serve on $(HOST):$(PORT)
	$(PY) manage.py migrate --no-input -v0
	SITE_URL=http://$(HOST):$(PORT) $(PY) manage.py setup_demo --url http://$(HOST):$(PORT)/
	SITE_URL=http://$(HOST):$(PORT) DEBUG=false ALLOWED_HOSTS=$${ALLOWED_HOSTS:-127.0.0.1,localhost,$(HOST)} $(PY) manage.py runserver $(HOST):$(PORT)

test: deps system-deps services  ## everything CI checks: lint, migrations, deploy checks, compose file, pytest
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run
	$(MAKE) check-deploy
	$(MAKE) compose-config
	.venv/bin/pytest

deps:  ## Python dependencies with the dev group (tests, lint)
	scripts/python-deps

runtime-deps:  ## Python dependencies the app needs to run, nothing else
	scripts/python-deps --runtime

system-deps:
	scripts/system-deps

services:
	scripts/services

lint:
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

format:
	.venv/bin/ruff check --fix .
	.venv/bin/ruff format .

messages:  ## regenerate and compile the translations (needs gettext)
	$(PY) manage.py makemessages -l zh_Hans --ignore=.venv --ignore=staticfiles --ignore=tests --ignore=test-artifacts
	$(PY) manage.py compilemessages -l zh_Hans --ignore=.venv

check-deploy:
	DJANGO_SETTINGS_MODULE=ecomap.settings.production SECRET_KEY=$$($(PY) -c "import secrets; print(secrets.token_urlsafe(64))") \
	  ALLOWED_HOSTS=ecomap.example.org $(PY) manage.py check --deploy --fail-level WARNING

compose-config:
	SECRET_KEY=compose-check-only ALLOWED_HOSTS=localhost docker-compose -f docker-compose.yml config -q

serve:  ## production-shaped: gunicorn on the configured database (threads: see bench/load)
	.venv/bin/gunicorn ecomap.wsgi --bind $(HOST):$(PORT) --worker-class gthread --workers 2 --threads 8

worker:
	.venv/bin/celery -A ecomap worker --loglevel=INFO --concurrency 2

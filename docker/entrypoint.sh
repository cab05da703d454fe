#!/bin/sh
# Usage: cranfield-entrypoint web|worker|beat|<any command>
set -e
case "$1" in
  web)
    python manage.py migrate --noinput
    exec gunicorn cranfield.wsgi:application -c python:cranfield.gunicorn
    ;;
  worker)
    exec celery -A cranfield worker --loglevel INFO --concurrency "${WORKER_CONCURRENCY:-2}"
    ;;
  beat)
    exec celery -A cranfield beat --loglevel INFO
    ;;
  *)
    exec "$@"
    ;;
esac

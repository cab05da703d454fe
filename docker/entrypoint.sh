#!/bin/sh
# Usage: cranfield-entrypoint web|worker|beat|<any command>
set -e
case "$1" in
  web)
    python manage.py migrate --noinput
    exec gunicorn cranfield.wsgi:application --bind 0.0.0.0:8000 --workers "${WEB_CONCURRENCY:-3}" \
      --access-logfile - --timeout 60
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

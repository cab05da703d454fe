"""A project's live progress: rates, time on task, the forecast (``live``) and the server-drawn charts
(``charts``)."""

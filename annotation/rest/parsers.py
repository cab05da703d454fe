"""The API's JSON parser: DRF's, refusing bodies nested too deeply (``annotation.items.inputs``) with a 400
instead of letting the parser or a serializer run out of stack (a 500)."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser, JSONParser

from annotation.items.inputs import MAX_JSON_DEPTH, json_depth


class DepthLimitedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError(f"JSON parse error - nested more than {MAX_JSON_DEPTH} levels deep") from error
        if json_depth(data) > MAX_JSON_DEPTH:
            raise ParseError(f"JSON parse error - nested more than {MAX_JSON_DEPTH} levels deep")
        return data


class UnreadBodyParser(BaseParser):
    """Leaves the body unread, whatever its type, for a view that streams it itself (import jobs and
    bundles: up to a gigabyte, never held whole). DRF parses ``request.data`` as soon as anything reads
    ``request.POST``, and a session login's CSRF check does: with the default parsers that answered
    415 to a ZIP and 413 to a large JSON body. The view checks the type itself."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None) -> dict:
        return {}

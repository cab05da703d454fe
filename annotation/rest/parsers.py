"""The API's JSON parser: DRF's, refusing bodies nested too deeply (``annotation.items.inputs``) with a 400
instead of letting the parser or a serializer run out of stack (a 500)."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

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

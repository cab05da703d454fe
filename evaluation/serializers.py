"""The body of a collection import (API and Import page alike) and the summary it answers with."""

from __future__ import annotations

from rest_framework import serializers

from annotation.serializers import DocumentInSerializer, GoldInSerializer, ItemInSerializer, TopicInSerializer


class ImportSerializer(serializers.Serializer):
    topics = TopicInSerializer(many=True, required=False, default=list)
    documents = DocumentInSerializer(many=True, required=False, default=list)
    runs = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False),
        required=False,
        default=list,
        help_text="Each item is the text of one TREC run file: `qid Q0 docno rank score tag` per line.",
    )
    pool_depth = serializers.IntegerField(min_value=1, default=10)
    items = ItemInSerializer(
        many=True,
        required=False,
        default=list,
        help_text="Tasks to add directly (rating, free text, pairwise).",
    )
    gold = GoldInSerializer(
        many=True, required=False, default=list, help_text="Known-answer items mixed in at the gold rate."
    )
    qualification = GoldInSerializer(
        many=True, required=False, default=list, help_text="Questions of the qualification test."
    )


class ImportSummarySerializer(serializers.Serializer):
    topics_created = serializers.IntegerField()
    documents_created = serializers.IntegerField()
    runs_created = serializers.IntegerField()
    tasks_created = serializers.IntegerField()
    tasks_total = serializers.IntegerField()
    gold_created = serializers.IntegerField()
    qualification_created = serializers.IntegerField()
    attention_checks_created = serializers.IntegerField()

"""The body of a collection import (API and Import page alike) and the summary it answers with."""

from __future__ import annotations

from rest_framework import serializers

from annotation.serializers import (
    DocumentInSerializer,
    GoldInSerializer,
    IdentifierField,
    ItemInSerializer,
    LongTextField,
    StrictSerializer,
    TopicInSerializer,
)
from evaluation.metrics.trec.sampling import StrataError, parse_strata


class ReferenceInSerializer(StrictSerializer):
    input = IdentifierField(
        max_length=200, help_text="The input (source document, dialogue, recording) it is a reference for."
    )
    text = LongTextField(trim_whitespace=False, max_length=1_000_000)
    writer = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)

    def validate_text(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("a reference needs some text")
        return value


class ImportSerializer(StrictSerializer):
    topics = TopicInSerializer(many=True, required=False, default=list)
    documents = DocumentInSerializer(many=True, required=False, default=list)
    runs = serializers.ListField(
        child=LongTextField(trim_whitespace=False),
        required=False,
        default=list,
        help_text="Each item is the text of one TREC run file: `qid Q0 docno rank score tag` per line.",
    )
    # Deeper than any run worth pooling, and far inside the database's integer range.
    pool_depth = serializers.IntegerField(
        min_value=0,
        max_value=100_000,
        default=10,
        help_text="How many top documents per topic of each run become items; 0 stores the runs unpooled.",
    )
    pool_budget = serializers.IntegerField(
        min_value=1,
        max_value=100_000,
        required=False,
        allow_null=True,
        default=None,
        help_text="At most this many documents per topic: the depth-k pool read in depth order "
        "(every run's first document, then every run's second, …) until the budget is spent.",
    )
    pool_method = serializers.ChoiceField(
        choices=["depth", "rbp", "stratified"],
        default="depth",
        help_text="depth: the depth-k pool (best rank first); rbp: documents by summed rank-biased weight "
        "over the runs (Moffat, Webber & Zobel 2007), which finds more relevant documents per judgement; "
        "stratified: a sample of the pool drawn in strata by rank (`pool_strata`, `pool_seed`; Yilmaz, "
        "Kanoulas & Aslam 2008), only the drawn documents become items, every pooled one is kept with its "
        "inclusion probability for the inferred measures (xinfAP, infNDCG, statAP) and the sample qrels.",
    )
    pool_strata = serializers.CharField(
        max_length=500,
        default="1-10:1,11-100:0.2,101-1000:0.05",
        help_text="With pool_method stratified: FIRST-LAST:RATE,… covering ranks from 1, each rate in "
        "(0, 1]; a document's stratum is that of its best rank over the runs (pool_depth is the last rank).",
    )
    pool_seed = serializers.IntegerField(
        min_value=0, max_value=2**31 - 1, default=0, help_text="With pool_method stratified: the draw's seed."
    )
    run_group = serializers.CharField(
        max_length=200,
        required=False,
        default="",
        allow_blank=True,
        help_text="The team or system family of these runs (pool-bias checks leave a whole group out).",
    )
    dry_run = serializers.BooleanField(
        default=False, help_text="Check everything and count what would be created, but store nothing."
    )
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
    references = ReferenceInSerializer(
        many=True,
        required=False,
        default=list,
        help_text="Reference texts per input (one or several), which text evaluations score outputs against.",
    )
    trec_topics = LongTextField(
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        help_text="The text of a TREC topic file (`<top> <num> Number: 301 <title> … <desc> Description: … "
        '<narr> Narrative: … </top>`, or the XML `<topic number="1"><query>…</query>…</topic>`): its topics '
        "are imported beside `topics`, the narrative after the description. Errors name the line.",
    )
    qrels = LongTextField(
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        help_text="The text of a TREC qrels file (`topic iter docno rel`): the collection's own relevance "
        "judgements, stored as external qrels named `qrels_name` (the runs are scored against them and the "
        "crowd compared with them). Its topics must be the project's or this import's.",
    )
    qrels_name = serializers.CharField(
        required=False, default="reference", max_length=200, help_text="The name the qrels are kept under."
    )

    judge_prior = serializers.BooleanField(
        default=False,
        help_text="Pool the pairs a prior set of judgements already judges too (an overlap audit); by "
        "default they are left out of the pool, and the summary counts the judgements saved.",
    )
    prior_qrels = LongTextField(
        required=False,
        default="",
        allow_blank=True,
        trim_whitespace=False,
        help_text="A TREC qrels text stored as prior judgements (`prior_name`), before the runs are pooled: "
        "its pairs are reused, not judged again. It names only the project's or this import's topics and "
        "documents; a line naming anything else is refused with its number.",
    )
    prior_name = serializers.CharField(required=False, default="prior", max_length=200)
    prior_source = serializers.CharField(required=False, default="", allow_blank=True, max_length=300)
    prior_assessor = serializers.CharField(required=False, default="", allow_blank=True, max_length=200)
    prior_date = serializers.DateField(required=False, allow_null=True, default=None)

    def validate_pool_strata(self, value: str) -> str:
        try:
            parse_strata(value)
        except StrataError as error:
            raise serializers.ValidationError(str(error)) from error
        return value

    def validate(self, attrs):
        streamed = self.context.get("documents")
        if streamed is not None:  # an import job's, checked as they were read (``collection.streaming``)
            attrs["documents"] = streamed
        keys = ("topics", "documents", "runs", "items", "gold", "qualification", "references", "trec_topics")
        if not any(attrs.get(key) for key in (*keys, "qrels", "prior_qrels")):
            raise serializers.ValidationError(
                {
                    "non_field_errors": [
                        "nothing to import: give topics (or trec_topics), documents, runs, items, gold, "
                        "qualification, references or qrels"
                    ]
                }
            )
        return attrs


class ImportSummarySerializer(serializers.Serializer):
    topics_created = serializers.IntegerField()
    documents_created = serializers.IntegerField()
    runs_created = serializers.IntegerField()
    tasks_created = serializers.IntegerField()
    tasks_total = serializers.IntegerField()
    gold_created = serializers.IntegerField()
    qualification_created = serializers.IntegerField()
    attention_checks_created = serializers.IntegerField()
    references_created = serializers.IntegerField()
    qrels_created = serializers.IntegerField()
    prior_created = serializers.IntegerField(help_text="Prior judgements stored.")
    prior_judged = serializers.IntegerField(help_text="New pooled pairs a prior set already judges.")
    prior_skipped = serializers.IntegerField(help_text="Of them, left out of the pool (not judged again).")
    judgements_saved = serializers.IntegerField(
        help_text="Judgements the left-out pairs would have cost (× k)."
    )
    dry_run = serializers.BooleanField()
    judging_order = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    cost = serializers.DictField(
        required=False,
        allow_null=True,
        help_text="A dry run: what the new items' judgements would cost paid workers (currency, judgements, "
        "amount with the fee, basis), with the project's pay settings; null without them.",
    )

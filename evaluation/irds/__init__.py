"""ir_datasets in and out: a project filled from an ir_datasets id (topics, documents, qrels as the
external reference, scoreddocs as a run) as an import job, and a project written back as files that
ir_datasets and the TREC tools read (issue 25, item 1)."""

"""paramine's benchmarks: each script measures one thing and writes its own results file.

Run one with ``python -m benchmarks.<name>``; ``make bench`` (``benchmarks.run_all``) runs the
accuracy and speed benchmarks one after another; ``make load`` runs the load test. Data is
read in place from the kit (``benchmarks.common.KIT``: ``../shared/data``); results go to
``benchmarks/results/<file>``.

Sentence alignment (``sentence_align``):
    sentence_align_length: Gale-Church aligner vs galechurch, NLTK -> sentence_align_length.md
    sentence_align: length, lexicon, hybrid aligners; speed -> sentence_align.md
        (its parts: sentence_align_rows, sentence_align_dev, sentence_align_report,
        sentence_align_large)
    sentence_align_pages: per-page-pair cost of the handler (a section) -> sentence_align.md
    sentence_align_languages: the default command per language pair -> sentence_align_languages.md
    sentence_align_scripts: other scripts (Gujarati, Armenian, ...) on the Bible corpus, a
        fetched repository, not the kit -> sentence_align_scripts.md
    sentence_align_whole_process: the default command vs galechurch as whole processes, one
        long document -> sentence_align_whole_process.md
    sentence_align_ablation: the hybrid's components outside dev -> sentence_align_ablation.md
    sentence_align_missing_block: a block missing on one side -> sentence_align_missing_block.md
    sentence_align_long: one paragraph of 20,000 sentences a side, cut at anchors before the
        DP -> sentence_align_long.md
    bam_anchors: BAM anchors on monolingual text -> bam_anchors.md
    web_mobile: Web-vs-mobile article and sentence pairing -> web_mobile.md
Content (``services/html/content``):
    content: paramine extract-content vs trafilatura, resiliparse, jusText on the kit's
        article pages -> content.md
Tree alignment (``tree_align``):
    tree_align_pages: align-pages tree path vs --flat, the whole page and the extractors
        on the suite, moderate and heavy templates -> tree_align_pages.md (its other
        paths: tree_align_paths)
    tree_align_speed: decoder time and memory vs apted -> tree_align_speed.md
    tree_align_news: per-pair CPU on news-size pages -> tree_align_news.md
    tree_align_wide: exact vs work-bounded decoder on wide pages -> tree_align_wide.md
    tree_align_default_model: trains the shipped tree model -> its model file in
        services/tree_align/
Page matching, words, paraphrases, thesaurus, corpus:
    page_match: site crawls from the kit, the albatec crawl -> page_match.md
        (its crawls: page_match_crawls)
    page_match_languages: a site in three languages, the third arriving later (the Bible
        corpus, a fetched repository) -> page_match_languages.md
    word_align: align-words vs eflomal on Edinburgh++, RTE2 -> word_align.md
    ending_paraphrases: planted sentence-ending paraphrases -> ending_paraphrases.md
    thesaurus_extraction: noun-を-verb extraction vs UD Japanese GSD -> thesaurus_extraction.md
    thesaurus_livedoor: similarity end to end on livedoor news -> thesaurus_livedoor.md
    thesaurus_trend: noise of the Table-2 tendency (a section) -> thesaurus_livedoor.md
    thesaurus_speed: a full similarity recompute -> thesaurus_speed.md
    langid: language identification for flagging -> langid.md
    langid_cache: the flag check's verdict cache on the albatec crawl -> langid_cache.md
    clean_corpus: the README's command on the albatec crawl -> clean_corpus.md
    pair_score: the pair classifier's score, calibration and threshold on the validation
        gold -> pair_score.md
Whole runs:
    process_cpu: paramine process of single-page crawls, CPU against a baseline checkout
        side by side (start-up apart) -> process_cpu.md
The distributed pipeline (needs Redis and PostgreSQL):
    pipeline_load: gateway, workers, Redis, PostgreSQL under load -> pipeline_load.md
        (its parts: pipeline_load_stack, pipeline_load_client, pipeline_load_profile,
        pipeline_load_summary, pipeline_load_report)
    celery_floor: Celery's own cost per task -> celery_floor.md
    hosts_recovery: network partitions across hosts, the ``hosts`` tests' recovery times
        (network namespaces, root) -> hosts.md
Not a benchmark:
    output_digests: digests of the product's outputs, to check that a refactoring changes
        none of them (``--check``) -> output_digests.json
    structure_speed: the decoder and tree_align's CPU per pair against the code before issue
        38's restructuring (a one-off comparison) -> structure.md

``results/tuning_history.md`` keeps, quoted, the tuning notes that product modules carried
beside their defaults until issue 38 (each default now points to it or to its results file).

Shared helpers: ``common`` (paths: repository, kit, results, the ``paramine`` command),
``generators`` (news-size page pairs), ``_report`` (writing a results file),
``sentence_align_presets`` (the hybrid settings the ablations compare against),
``tree_align_suite``, ``tree_align_families`` (its template families),
``tree_align_pagegen``, ``tree_align_sitetext``, ``tree_align_realpages`` (the tree_align
page suite and its inputs).
"""

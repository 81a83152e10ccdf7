"""paramine's benchmarks: each script measures one thing and writes its own results file.

Scripts are grouped by stage: ``benchmarks/<stage>/`` for the five stages, ``system/`` for
the whole system and the ground under the stages. Run one with ``python -m
benchmarks.<stage>.<name>``; ``make bench`` (``benchmarks.run_all``) runs the accuracy and
speed benchmarks one after another; ``make load`` runs the load test. Data is read in place
from the kit (``benchmarks.common.KIT``: ``../shared/data``); results go to
``benchmarks/results/<file>``. What is written by hand there (tuning records, explanations)
stands in the results file between ``<!-- notes: NAME -->`` and ``<!-- /notes -->``; the
script names the block (``common.notes``) and a rerun keeps it as it stands.

Sentence alignment (``sentence_align``):
    sentence_align.aligners: length, lexicon, hybrid aligners vs galechurch, NLTK; speed ->
        sentence_align.md (its parts: sentence_align.textberg, sentence_align.rows,
        sentence_align.dev, sentence_align.report, sentence_align.large)
    sentence_align.pages: per-page-pair cost of the handler (a section) -> sentence_align.md
    sentence_align.languages: the default command per language pair ->
        sentence_align_languages.md
    sentence_align.scripts: other scripts (Gujarati, Armenian, ...) on the Bible corpus, a
        fetched repository, not the kit -> sentence_align_scripts.md
    sentence_align.long: one paragraph of 20,000 sentences a side, cut at anchors before the
        DP -> sentence_align_long.md
    sentence_align.bam_anchors: BAM anchors on monolingual text -> bam_anchors.md
    sentence_align.web_mobile: Web-vs-mobile article and sentence pairing -> web_mobile.md
    sentence_align.pair_score: the pair classifier's score, calibration and threshold on the
        validation gold -> pair_score.md
Tree alignment and page content (``tree_align``):
    tree_align.content: paramine extract-content vs trafilatura, resiliparse, jusText on the
        kit's article pages -> content.md
    tree_align.pages: align-pages tree path vs --flat, the whole page and the extractors
        on the suite, moderate and heavy templates -> tree_align_pages.md (its other
        paths: tree_align.paths)
    tree_align.speed: decoder time and memory vs apted -> tree_align_speed.md
    tree_align.default_model: trains the shipped tree model -> its model file in
        services/tree_align/
    the page suite and its inputs: tree_align.suite, tree_align.families (its template
        families), tree_align.pagegen, tree_align.sitetext, tree_align.realpages
Page matching (``page_match``):
    page_match.matching: site crawls from the kit, the albatec crawl -> page_match.md
        (its crawls: page_match.crawls)
    page_match.languages: a site in three languages, the third arriving later (the Bible
        corpus, a fetched repository) -> page_match_languages.md
Paraphrases (``paraphrase``):
    paraphrase.word_align: align-words vs eflomal on Edinburgh++, RTE2 -> word_align.md
    paraphrase.ending_paraphrases: planted sentence-ending paraphrases -> ending_paraphrases.md
Thesaurus (``thesaurus``):
    thesaurus.extraction: noun-を-verb extraction vs UD Japanese GSD -> thesaurus_extraction.md
    thesaurus.livedoor: similarity end to end on livedoor news -> thesaurus_livedoor.md
    thesaurus.trend: noise of the Table-2 tendency (a section) -> thesaurus_livedoor.md
    thesaurus.speed: a full similarity recompute -> thesaurus_speed.md
The system and the ground under the stages (``system``):
    system.langid: language identification for flagging -> langid.md
    system.clean_corpus: the README's command on the albatec crawl -> clean_corpus.md
    system.process_cpu: paramine process of single-page crawls, CPU against a baseline
        checkout side by side (start-up apart) -> process_cpu.md
    system.site_growth: a page pair's store reads as its site grows to 20,000 page pairs,
        against a baseline checkout (needs PostgreSQL) -> site_growth.md
    system.pipeline_load: gateway, workers, Redis, PostgreSQL under load (needs Redis and
        PostgreSQL) -> pipeline_load.md (its parts: system.pipeline_load_stack,
        system.pipeline_load_client, system.pipeline_load_profile,
        system.pipeline_load_summary, system.pipeline_load_report)
    system.hosts_recovery: network partitions across hosts, the ``hosts`` tests' recovery
        times (network namespaces, root) -> hosts.md
    Not a benchmark: system.output_digests, digests of the product's outputs, to check that
        a refactoring changes none of them (``--check``) -> output_digests.json
    Written by a test, not by a script here: soak.md (``make soak``, tests/soak/: the
        soak under faults; its report keeps a hand-written reading)
    Historical records, their one-off scripts removed (each file says at which commit the
    script stands): structure.md (issue 38's restructuring against the code before it; such
    comparisons now: system.process_cpu); retired in issue 51, each a comparison behind a
    decision taken or superseded by a live benchmark: celery_floor.md, langid_cache.md,
    sentence_align_length.md (its rows stand in sentence_align.md),
    sentence_align_ablation.md, sentence_align_missing_block.md,
    sentence_align_whole_process.md, tree_align_news.md (per-step cost now:
    system.pipeline_load --profile-only), tree_align_wide.md

``results/tuning_history.md`` keeps, quoted, the tuning notes that product modules carried
beside their defaults until issue 38 (each default now points to it or to its results file).

Shared helpers, one module: ``common`` (paths: repository, kit, results, the ``paramine``
command; ``publish``, writing a results file and keeping its notes; ``peak_rss_mb``;
``generate_pair``, news-size page pairs). The hybrid settings the benchmarks compare against
are the product's ``services/sentence_align/aligners/presets.py``; the gold documents and the
documents derived from them, ``services/sentence_align/aligners/gold.py``.
"""

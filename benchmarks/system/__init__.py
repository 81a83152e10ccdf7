"""Benchmarks of the whole system rather than one stage: the distributed pipeline under load
(``pipeline_load`` and its parts ``pipeline_load_stack``, ``_client``, ``_profile``,
``_summary``, ``_report``), recovery across hosts
(``hosts_recovery``), whole ``paramine process`` runs (``process_cpu``), the shared ground
under the stages (``langid``, ``clean_corpus``), and the check of a
refactoring (``output_digests``)."""

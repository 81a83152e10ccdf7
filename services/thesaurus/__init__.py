"""The thesaurus stage."""

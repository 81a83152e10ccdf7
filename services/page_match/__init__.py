"""page_match: single crawled pages in, page pairs out (translations and PC/mobile versions)."""

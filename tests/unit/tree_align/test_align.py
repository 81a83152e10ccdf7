"""Text-chunk pairs from the tree alignment: inline markup merged, one-sided text dropped."""

from __future__ import annotations

from services.tree_align.align import align_page_texts
from services.tree_align.html_tree import parse_html
from services.tree_align.model import initial_model

SRC = """<html><body><div id=nav><ul><li><a>Startseite</a></li><li><a>Kontakt</a></li></ul></div>
<div class=main><h1>Die Geschichte</h1>
<p>Die Firma wurde <b>1990</b> in Berlin gegründet.</p>
<p>Heute arbeiten dort über hundert Menschen.</p></div>
<div class=ad><p>Jetzt kaufen! Nur heute zum halben Preis, solange der Vorrat reicht.</p></div>
</body></html>"""
TGT = """<html><body><div id=nav><ul><li><a>Accueil</a></li><li><a>Contact</a></li></ul></div>
<div class=main><h1>L'histoire</h1>
<p>L'entreprise a été fondée en <i>1990</i> à Berlin.</p>
<p>Aujourd'hui plus de cent personnes y travaillent.</p></div>
</body></html>"""


def test_inline_fragments_merge_and_the_ad_is_not_paired() -> None:
    src, tgt = parse_html(SRC), parse_html(TGT)
    model = initial_model(sorted(set(src.label_names) | set(tgt.label_names)))
    pairs = align_page_texts(src, tgt, model=model)
    texts = [(p.src_text, p.tgt_text) for p in pairs]
    assert ("Die Firma wurde 1990 in Berlin gegründet.",
            "L'entreprise a été fondée en 1990 à Berlin.") in texts  # fmt: skip
    assert ("Heute arbeiten dort über hundert Menschen.",
            "Aujourd'hui plus de cent personnes y travaillent.") in texts  # fmt: skip
    assert not any("Jetzt kaufen" in src_text for src_text, _ in texts)
    assert [p.src_xpath for p in pairs][-1] == "/html/body/div[2]/p[2]"

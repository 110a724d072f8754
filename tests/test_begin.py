

def test_quotation_is_escaped_and_links_only_http() -> None:
    html = str(render.quote_html('a <b>bold</b> "claim"', "Source & co", "javascript:alert(1)"))
    assert "<b>" not in html and "&lt;b&gt;" in html and "href" not in html
    assert 'href="https://arxiv.org/abs/2204.10757"' in str(render.quote_html("q", "s", "https://arxiv.org/abs/2204.10757"))

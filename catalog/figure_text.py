"""Catalog text on its way into a Plotly figure.

Plotly renders a subset of HTML in labels, hover text, legends and annotations (`<a href>`,
`<span style>`, `<b>`), and a vendor bundle is untrusted: a project named `<a href=…>` would
become a live link on every viewer's map. Every string that comes from catalog data is escaped
here; the figures' own markup (`<b>`, `<br>`) is added around the escaped text.
"""

from __future__ import annotations

import html


def plain(text: object) -> str:
    """`text` as Plotly shows it literally (it decodes &lt; &gt; &amp; back for display)."""
    return html.escape(str(text), quote=False)

"""BPE Explorer: watch Byte-Pair Encoding learn and apply its merges.

Run with ``streamlit run app.py``. This script sets up the page, the shared
sidebar (corpus and training settings) and the navigation; each page lives in
``app_pages/`` and only reads widgets, calls cached builders and renders.

The page folder is not called ``pages/``: Streamlit treats a ``pages/`` folder
next to the entry script as its legacy multipage app until ``st.navigation``
has run once in the process, so on a freshly started server a shared link
such as ``/lessons`` would run the page script alone, without this file.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import sidebar
from ui.cache import start_preload

# The page icon, served by the app itself (a material icon would be fetched from Google's fonts).
# A comment, not a string: Streamlit's magic would draw a bare string on every page.
ICON = Path(__file__).parent / "ui" / "icon.png"

st.set_page_config(page_title="BPE Explorer", page_icon=str(ICON), layout="wide")

pages = [
    st.Page("app_pages/train.py", title="Train", icon=":material/model_training:", url_path="train", default=True),
    st.Page("app_pages/encode.py", title="Encode", icon=":material/text_fields:", url_path="encode"),
    st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    st.Page("app_pages/provenance.py", title="Token trees", icon=":material/account_tree:", url_path="provenance"),
    st.Page("app_pages/check.py", title="Check an example", icon=":material/fact_check:", url_path="check"),
    st.Page("app_pages/lessons.py", title="Lessons", icon=":material/school:", url_path="lessons"),
]
navigation = st.navigation(pages, position="top")
start_preload()
sidebar.render()
navigation.run()

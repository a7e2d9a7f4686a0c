"""BPE Explorer: watch Byte-Pair Encoding learn and apply its merges.

Run with ``streamlit run app.py``. This script sets up the page, the shared
sidebar (corpus and training settings) and the navigation; each page lives in
``pages/`` and only reads widgets, calls cached builders and renders.
"""

from __future__ import annotations

import streamlit as st

from ui import sidebar

st.set_page_config(page_title="BPE Explorer", page_icon=":material/join_inner:", layout="wide")

pages = [
    st.Page("pages/train.py", title="Train", icon=":material/model_training:", url_path="train", default=True),
    st.Page("pages/encode.py", title="Encode", icon=":material/text_fields:", url_path="encode"),
]
navigation = st.navigation(pages, position="top")
sidebar.render()
navigation.run()

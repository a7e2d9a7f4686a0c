"""Turn bpe_core traces into pandas DataFrames, plotly figures and escaped HTML.

Nothing here imports Streamlit, so every builder is unit-tested directly
(AppTest cannot look inside plotly charts). Every piece of user text that goes
into HTML passes through :func:`html.escape`.
"""

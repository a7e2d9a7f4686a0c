"""Streamlit helpers shared by the pages: session-state keys, sidebar, corpus input and cached builders."""

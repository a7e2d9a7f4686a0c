"""Lessons page: one-click demonstrations of how BPE behaves, each live on editable input."""

from __future__ import annotations

import streamlit as st

from ui import state
from ui.lessons import LESSONS

st.title("Lessons")
titles = [lesson.title for lesson in LESSONS]
title = st.pills("Lesson", titles, default=titles[0], key=state.LESSON, bind="query-params")
if title is None:  # clicking the open lesson unselects it: stay on it
    title = st.session_state.get(state.LAST_LESSON, titles[0])
st.session_state[state.LAST_LESSON] = title
index = titles.index(title)
lesson = LESSONS[index]
st.header(lesson.title)
st.markdown(lesson.explanation)
lesson.render(index + 1)

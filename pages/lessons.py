"""Lessons page: one-click demonstrations of how BPE behaves, each live on editable input."""

from __future__ import annotations

import streamlit as st

from ui import state
from ui.layout import setup_page
from ui.lessons import LESSONS
from ui.presentation import presenting

setup_page("Lessons", training_sidebar=False)
st.title("Lessons")
titles = [lesson.title for lesson in LESSONS]


def keep_one_open() -> None:
    """Clicking the open lesson's pill would unselect it (and the link would read ?lesson=): reselect it."""
    if st.session_state[state.LESSON] is None:
        st.session_state[state.LESSON] = st.session_state.get(state.LAST_LESSON, titles[0])


title = st.pills(
    "Lesson",
    titles,
    default=titles[0],
    key=state.LESSON,
    on_change=keep_one_open,
    bind="query-params",
    label_visibility="collapsed" if presenting() else "visible",  # the pills say what they are: room for the lesson
)
if title not in titles:  # a link with an empty or unknown lesson: the first one
    title = titles[0]
st.session_state[state.LAST_LESSON] = title
index = titles.index(title)
lesson = LESSONS[index]
st.header(lesson.title)
st.markdown(lesson.explanation)
lesson.render(index + 1)

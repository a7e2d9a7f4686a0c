"""Lessons page: one-click demonstrations of how BPE behaves, each live on editable input."""

from __future__ import annotations

import streamlit as st

from ui import state
from ui.layout import setup_page
from ui.lessons import LESSONS, lesson_asked
from ui.presentation import presenting
from viz.markdown import code

setup_page("Lessons", training_sidebar=False)
st.title("Lessons")
titles = [lesson.title for lesson in LESSONS]


def keep_one_open() -> None:
    """Clicking the open lesson's pill would unselect it (and the link would read ?lesson=): reselect it."""
    if st.session_state[state.LESSON] is None:
        st.session_state[state.LESSON] = st.session_state.get(state.LAST_LESSON, titles[0])


asked = st.query_params.get(state.LESSON)  # read before the pills, which drop a value that is not a title
chosen = lesson_asked(asked, titles)
if chosen is not None and asked not in titles:  # a lesson's number: the link names the lesson's title instead
    st.query_params[state.LESSON] = titles[chosen]  # which the pills read, and keep in the URL, like any title
    st.rerun()
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
if asked and asked not in titles and chosen is None:
    st.info(f"This link asks for lesson {code(asked[:40])}, which is not one of the {len(titles)} lessons below.")
st.session_state[state.LAST_LESSON] = title
index = titles.index(title)
lesson = LESSONS[index]
st.header(lesson.title)
st.markdown(lesson.explanation)
lesson.render(index + 1)

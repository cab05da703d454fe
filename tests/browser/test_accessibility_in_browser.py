"""Accessibility measured in real Chromium on the judging page: the contrast of every piece of text as
the browser paints it, and a keyboard focus order that follows the page with a visible focus ring."""

from __future__ import annotations

import pytest

from annotation.models import Task
from tests.browser.conftest import keyboard_ready, log_in
from tests.browser.test_annotator_flow import PASSWORD, relevance_project

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# For every element with its own text: its colour and the first opaque background behind it, as
# computed by the browser, and the WCAG 2.1 contrast ratio of the two (AA: 4.5, 3 for large text).
CONTRAST_FAILURES = """() => {
  const rgb = (s) => s.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] === 1) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const failures = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const style = getComputedStyle(el);
    const hidden = style.visibility === 'hidden' || (el.offsetParent === null && style.position !== 'fixed');
    if (!own || hidden) continue;
    const [a, b] = [lum(rgb(style.color).slice(0, 3)), lum(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight, 10) >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    const text = el.textContent.trim().slice(0, 30);
    if (ratio < needed) failures.push(`${el.tagName} "${text}" ${ratio.toFixed(2)}`);
  }
  return failures;
}"""

FOCUSED = """() => {
  const el = document.activeElement;
  const all = [...document.querySelectorAll('*')];
  const style = getComputedStyle(el);
  return {index: all.indexOf(el), name: el.tagName + (el.name ? ':' + el.name : '') + ' ' +
          (el.textContent || el.value || '').trim().slice(0, 20),
          ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2};
}"""


def judging_page(live_server, page, project):
    log_in(page, live_server.url, "ann", PASSWORD)
    page.goto(f"{live_server.url}/projects/{project.pk}/judge/")
    page.get_by_role("button", name="Get the next task").click()
    page.get_by_role("heading", name="Topic: jet noise reduction").wait_for()
    keyboard_ready(page)


def test_every_text_on_the_judging_page_meets_aa_contrast(live_server, page):
    project, _annotator = relevance_project()
    project.tasks.filter(kind=Task.Kind.QUALIFICATION).delete()
    judging_page(live_server, page, project)
    assert page.evaluate(CONTRAST_FAILURES) == []
    page.goto(f"{live_server.url}/")  # the queue, with its progress table
    assert page.evaluate(CONTRAST_FAILURES) == []


def test_tab_walks_the_judging_page_in_reading_order_with_a_visible_ring(live_server, page):
    project, _annotator = relevance_project()
    project.tasks.filter(kind=Task.Kind.QUALIFICATION).delete()
    judging_page(live_server, page, project)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    stops = []
    for _ in range(40):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED)
        if stops and stop["index"] <= stops[-1]["index"]:
            break  # wrapped around to the top
        stops.append(stop)
    names = [stop["name"] for stop in stops]
    # Reading order: no tabindex jumps; the answer comes before Submit, and Submit before Skip.
    assert [stop["index"] for stop in stops] == sorted(stop["index"] for stop in stops)
    answer = next(i for i, name in enumerate(names) if name.startswith("INPUT:label"))
    submit = next(i for i, name in enumerate(names) if name.startswith("BUTTON") and "Submit" in name)
    skip = next(i for i, name in enumerate(names) if name.startswith("BUTTON") and "Skip" in name)
    assert answer < submit < skip
    assert [stop["name"] for stop in stops if not stop["ring"]] == []

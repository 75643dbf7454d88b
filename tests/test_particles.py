"""수 뒤의 조사 (이슈 25, 4항): ``attn_course.viz.particles``와, 빌드된 사이트의 모든 "수 + 조사".

- 함수: 수를 소리 내어 읽은 마지막 소리로 조사를 고르는지 (정수, 소수, 지수 표기, 분수, 단위, 괄호).
- 사이트: 모든 페이지의 본문 글(빌드가 만든 문장 포함), 그림 캡션과 대체 텍스트에서 "수 + 은/는, 이/가, 을/를,
  과/와, (으)로 ..."를 모두 찾아, 붙은 조사가 함수가 고른 꼴과 같은지 봅니다. 빌드가 만든 문장(코드 셀의 출력)을
  충분히 읽었는지도 셉니다.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from attn_course import with_particle
from attn_course.viz.particles import PARTICLE_PAIRS, final_sound, particle_for
from conftest import read_toc_docnames


@pytest.mark.parametrize("value, fmt, particle, expected", [
    # 이슈에 적힌 틀린 예: 3.8e-03로, 0.053로, 0.083는
    (0.0038, ".1e", "로", "3.8e-03으로"),   # 지수 마이너스 삼
    (0.053, ".3f", "로", "0.053으로"),      # 영 점 영오삼
    (0.083, ".3f", "는", "0.083은"),
    (1024, ",", "는", "1,024는"),           # 천이십사
    ("4 GiB", "", "은", "4 GiB는"),         # 사 기비바이트
    (1, "", "으로", "1로"),                 # 일: ㄹ 받침은 "로"
    (7, "", "으로", "7로"),
    (8, "", "이", "8이"),
    (3, "", "로", "3으로"),
    (2, "", "과", "2와"),
    (10, "", "로", "10으로"),               # 십
    (100, "", "는", "100은"),               # 백
    (1000, ",", "를", "1,000을"),           # 천
    (32768, ",", "가", "32,768이"),         # ... 육십팔
    (20000, ",", "는", "20,000은"),         # 이만
    (0, "", "로", "0으로"),                 # 영
    (2.0, ".1f", "는", "2.0은"),            # 이 점 영
    (0.5, ".1f", "이", "0.5가"),
    (1e-5, ".0e", "로", "1e-05로"),         # 지수 마이너스 오
    ("1/3", "", "로", "1/3로"),             # 삼분의 일
    ("2/3", "", "은", "2/3는"),             # 삼분의 이
    (0.25, ".0%", "는", "25%는"),           # 퍼센트
    ("12 ms", "", "로", "12 ms로"),         # 밀리초
    ("L", "", "을", "L을"),                 # 엘
    ("Hkv", "", "가", "Hkv가"),             # ... 브이
    ("GPU", "", "를", "GPU를"),             # 지피유
    ("0.5(반반)", "", "로", "0.5(반반)로"),  # 괄호 앞 낱말에 맞춤
    ("**0.083**", "", "는", "**0.083**은"),  # 굵게
    ("헤드", "", "을", "헤드를"),
    ("출력", "", "로", "출력으로"),
    ("마을", "", "로", "마을로"),
])
def test_particle_follows_the_number_as_read_aloud(value, fmt, particle, expected) -> None:
    assert with_particle(value, particle, fmt) == expected


def test_invariant_endings_pass_through_and_both_forms_are_accepted() -> None:
    for ending in ("에서", "까지", "입니다", "이고", "이며", "의"):
        assert particle_for("0.053", ending) == ending
    for with_final, without in PARTICLE_PAIRS.items():
        assert particle_for("3", with_final) == particle_for("3", without) == with_final
        assert particle_for("2", with_final) == particle_for("2", without) == without
    assert final_sound("1") == "ㄹ" and final_sound("2") == "없음" and final_sound("3") == "있음"


def test_unknown_readings_are_refused_not_guessed() -> None:
    with pytest.raises(ValueError, match="마지막 소리"):
        particle_for("softplus", "를")
    with pytest.raises(ValueError, match="비어"):
        particle_for("", "를")
    with pytest.raises(TypeError):
        particle_for("3", "")


# ---------------------------------------------------------------------------------------
# 빌드된 사이트: 모든 "수 + 조사"
# ---------------------------------------------------------------------------------------

_FORMS = sorted({*PARTICLE_PAIRS, *PARTICLE_PAIRS.values()}, key=len, reverse=True)
_UNITS = r"(?:\s?(?:GiB|MiB|KiB|GB|MB|KB|kB|ms|µs|μs|ns|px|%))?"
NUMBER_PARTICLE = re.compile(
    r"(?<![\w.,/])(?P<word>(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+−]?\d+)?(?:/\d+)?" + _UNITS + r")"
    r"(?P<particle>" + "|".join(_FORMS) + r")(?![가-힣])"
)
#: 아직 조사 함수로 고치지 않은 페이지와 그 까닭. 고치면 지우세요 (고친 페이지가 여기 남으면 실패합니다).
NOT_YET_ROUTED: dict[str, str] = {}
_SKIP = ("div.cell_input", "pre", "div.highlight", "script", "style", "svg", "nav", ".headerlink")


def number_particles(text: str) -> list[tuple[str, str, str]]:
    """글에서 (수, 붙은 조사, 맞는 조사)를 모두."""
    return [(m["word"], m["particle"], particle_for(m["word"], m["particle"])) for m in NUMBER_PARTICLE.finditer(text)]


def test_the_site_scanner_finds_wrong_particles() -> None:
    found = number_particles("값은 3.8e-03로, 0.053로 줄고 0.083는 작으며 1,024는 맞고 4 GiB로 늘었습니다. 3가지, 2이고.")
    wrong = [(w, p, e) for w, p, e in found if p != e]
    assert wrong == [("3.8e-03", "로", "으로"), ("0.053", "로", "으로"), ("0.083", "는", "은")]
    assert ("4 GiB", "로", "로") in found and len(found) == 5  # "3가지", "2이고"는 조사가 아님


def _texts(path: Path) -> tuple[list[str], list[str]]:
    """페이지의 (본문 글 조각들, 그중 빌드가 만든 것들). 그림의 캡션과 alt도 본문 쪽에 넣습니다."""
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    article = soup.select_one("article.bd-article") or soup.select_one("main") or soup
    for selector in _SKIP:
        for node in article.select(selector):
            node.decompose()
    texts = [img.get("alt", "") for img in article.find_all("img")]
    generated = [out.get_text(" ") for out in article.select("div.cell_output")]
    texts += [article.get_text(" ")]
    return texts, generated


def _wrong_particles(text: str) -> list[tuple[str, str, str]]:
    out = []
    for m in NUMBER_PARTICLE.finditer(text):
        right = particle_for(m["word"], m["particle"])
        if m["particle"] != right:
            context = re.sub(r"\s+", " ", text[max(0, m.start() - 40) : m.end() + 20])
            out.append((m["word"], m["particle"], f"'{m['word']}{m['particle']}' -> '{m['word']}{right}' («…{context}…»)"))
    return out


def test_every_number_in_the_built_site_takes_the_right_particle(html_dir: Path) -> None:
    wrong, generated_seen = [], 0
    for docname in read_toc_docnames():
        if docname in NOT_YET_ROUTED:
            continue
        path = html_dir / f"{docname}.html"
        assert path.is_file(), f"{path} 이 없습니다 (make book)"
        texts, generated = _texts(path)
        generated_seen += sum(len(number_particles(t)) for t in generated)
        for text in texts:
            wrong += [f"{docname}: {message}" for _, _, message in _wrong_particles(text)]
    assert generated_seen >= 30, f"빌드가 만든 문장의 '수 + 조사'를 {generated_seen}개밖에 읽지 못했습니다 (선택자 확인)"
    assert not wrong, f"수 뒤의 조사가 틀린 곳 {len(wrong)}개:\n" + "\n".join(wrong)


@pytest.mark.parametrize("docname", sorted(NOT_YET_ROUTED))
def test_pages_not_yet_routed_still_need_it(docname: str, html_dir: Path) -> None:
    """목록에 남은 페이지가 이미 맞으면 목록에서 지우라고 알립니다 (목록이 낡지 않도록)."""
    texts, _ = _texts(html_dir / f"{docname}.html")
    assert any(_wrong_particles(t) for t in texts), (
        f"{docname} 은 이제 조사가 맞습니다: tests/test_particles.py 의 NOT_YET_ROUTED 에서 지우세요.")

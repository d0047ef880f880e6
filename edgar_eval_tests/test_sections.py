from edgar_eval.corpus.sections import find_notes_start, find_sections, item_coverage

TEN_K = """FORM 10-K
| Item 1. | Business | 3 |
| Item 7. | Management's Discussion and Analysis | 20 |
| Item 8. | Financial Statements | 40 |
PART I
Item 1. Business
We make widgets. We sell them to many customers across the world, and we say so at length.
ITEM 1A - RISK FACTORS
Widgets may fall out of fashion.
PART II
Item 7. Management's Discussion and Analysis
Revenue grew.
Item 8. Financial Statements and Supplementary Data
The information required by this Item is set forth in Item 15 of this report and is incorporated herein by reference.
PART III
Item 11. Executive Compensation
The information required by this Item is incorporated herein by reference to our Proxy Statement.
PART IV
Item 15. Exhibits and Financial Statement Schedules
| Revenue | $ | 100 |
Note 1 — Summary of Significant Accounting Policies
Policies.
"""

TEN_Q = """PART I — FINANCIAL INFORMATION
Item 1. Financial Statements
| Revenue | $ | 10 |
NOTE 1. BASIS OF PRESENTATION
Basis.
Item 2. Management's Discussion and Analysis
Discussion.
PART II — OTHER INFORMATION
Item 1. Legal Proceedings
None.
Item 1A. Risk Factors
No changes.
"""


def test_ten_k_sections_keyed_by_part_and_item_ignoring_the_table_of_contents():
    sections = find_sections(TEN_K, "10-K")
    keys = [s.key for s in sections]
    assert keys == [
        "Part I Item 1",
        "Part I Item 1A",
        "Part II Item 7",
        "Part II Item 8",
        "Part III Item 11",
        "Part IV Item 15",
    ]
    item7 = next(s for s in sections if s.item == "7")
    assert (
        TEN_K[item7.start : item7.end].startswith("Item 7. Management")
        and "Revenue grew." in TEN_K[item7.start : item7.end]
    )
    assert all(s.end - s.start < len(TEN_K) / 2 for s in sections)


def test_cross_reference_stubs_are_flagged_with_their_target():
    sections = {s.key: s for s in find_sections(TEN_K, "10-K")}
    assert sections["Part II Item 8"].cross_reference_target == "Item 15"
    assert sections["Part III Item 11"].cross_reference_target == "Proxy Statement"
    assert sections["Part II Item 7"].cross_reference_target is None
    assert sections["Part IV Item 15"].cross_reference_target is None


def test_ten_q_repeated_item_numbers_are_told_apart_by_part():
    keys = [s.key for s in find_sections(TEN_Q, "10-Q")]
    assert keys == ["Part I Item 1", "Part I Item 2", "Part II Item 1", "Part II Item 1A"]


def test_notes_start_at_note_one_heading():
    assert TEN_K[find_notes_start(TEN_K) :].startswith("Note 1 — Summary")
    assert TEN_Q[find_notes_start(TEN_Q) :].startswith("NOTE 1. BASIS")
    assert find_notes_start("No notes here\n| Note 1 | Summary of Significant Accounting Policies | 44 |\n") is None
    as_table = (
        "| Notes to Consolidated Financial Statements | 42 |\nNOTES TO CONSOLIDATED FINANCIAL STATEMENTS\n| "
        "NOTE 1 \u2014 SUMMARY |\n"
    )
    assert as_table[find_notes_start(as_table) :].startswith("| NOTE 1")
    assert find_notes_start("Notes to Consolidated Financial Statements (pages 52 through 121).\n") is None


def test_eight_k_items_and_documents_without_items():
    sections = find_sections(
        "Item 2.05 Costs Associated with Exit Activities\nText.\nItem 9.01 Exhibits\nList.\n", "8-K"
    )
    assert [s.item for s in sections] == ["2.05", "9.01"]
    whole = find_sections("A proxy statement with no items.\n", "DEF 14A")
    assert len(whole) == 1 and whole[0].key == "body"


def test_demo_filings_have_expected_sections(demo_parsed):
    for path, parsed in demo_parsed.items():
        keys = {s.key for s in parsed.sections}
        if parsed.meta.form == "10-K":
            assert {"Part I Item 1", "Part I Item 1A", "Part II Item 7", "Part II Item 8"} <= keys, path
            assert parsed.notes_start is not None, path
        if parsed.meta.form == "10-Q":
            assert {"Part I Item 1", "Part I Item 2", "Part II Item 1A"} <= keys, path
    stub = next(s for s in demo_parsed["crvd/10k_2024-03-22.htm"].sections if s.key == "Part II Item 8")
    assert stub.cross_reference_target == "Item 15"


def _paged(items: list[tuple[str, int]]) -> str:
    """A 10-K whose every page opens with the current item's heading (a running header), `pages` pages per item."""
    lines = ["FORM 10-K", "Item 1. Business", "Item 1A. Risk Factors", "Item 7. Management's Discussion and Analysis"]
    for heading, pages in items:
        for page in range(pages):
            lines.append(heading)
            lines.extend(
                f"{heading.split('.')[0]} text on page {page}, sentence {k}, long enough to read as prose."
                for k in range(40)
            )
            lines.append(str(page + 1))
    return "\n".join(lines) + "\nSIGNATURES\nSigned.\n"


def test_a_running_item_header_starts_its_item_at_the_first_occurrence_after_the_contents():
    text = _paged(
        [("Item 1. Business", 3), ("Item 1A. Risk Factors", 4), ("Item 7. Management's Discussion and Analysis", 5)]
    )
    sections = {s.item: s for s in find_sections(text, "10-K")}
    assert list(sections) == ["1", "1A", "7"]
    body = text.index("Item 1. Business", text.index("Item 7. Management"))  # the first Item 1 after the contents
    assert sections["1"].start == body
    for item, pages in (("1", 3), ("1A", 4), ("7", 5)):
        section = text[sections[item].start : sections[item].end]
        assert all(f"Item {item} text on page {p}," in section for p in range(pages)), item
    assert item_coverage(text, "10-K", list(sections.values())) > 0.99


def test_items_4a_1c_9c_16_and_unspaced_headings_are_items():
    text = "\n".join(
        [
            "Item 1C. Cybersecurity",
            "We have a program.",
            "Item 4. Mine Safety Disclosures",
            "Not applicable.",
            "Item 4A. Information About Our Executive Officers",
            "Our officers are listed here.",
            "Item 9C. Disclosure Regarding Foreign Jurisdictions",
            "Not applicable.",
            "Item10.Directors, Executive Officers and Corporate Governance",
            "Incorporated by reference.",
            "ITEM 16. FORM 10-K SUMMARY",
            "None.",
        ]
    )
    sections = find_sections(text, "10-K")
    assert [s.key for s in sections] == [
        "Part I Item 1C",
        "Part I Item 4",
        "Part I Item 4A",
        "Part II Item 9C",
        "Part III Item 10",
        "Part IV Item 16",
    ]
    officers = next(s for s in sections if s.item == "4A")
    assert "Our officers" in text[officers.start : officers.end]
    mine_safety = next(s for s in sections if s.item == "4")
    assert "Our officers" not in text[mine_safety.start : mine_safety.end]


def test_item_numbers_glued_to_other_digits_are_not_items():
    assert [s.item for s in find_sections("Item 1. Business\nText.\nItem 100 units were sold.\n", "10-K")] == ["1"]


def test_the_demo_filing_with_running_headers_keeps_whole_items(demo_parsed):
    running = demo_parsed["mrbl/10k_2023-08-21.htm"]
    plain = demo_parsed["mrbl/10k_2024-08-20.htm"]
    assert running.text.count("Item 7. Management's Discussion") > 2  # the header repeats on its pages
    lengths = {s.item: s.end - s.start for s in running.sections}
    plain_lengths = {s.item: s.end - s.start for s in plain.sections}
    assert [s.item for s in running.sections] == [s.item for s in plain.sections]
    for item in ("7", "8"):
        assert lengths[item] > 0.8 * plain_lengths[item], item
    assert item_coverage(running.text, "10-K", running.sections) >= 0.90  # the uncovered rest is its table of contents

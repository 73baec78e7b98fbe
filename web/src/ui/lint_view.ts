// The Lint tab: every finding of the quantization lint in one list, errors first, with its
// severity, rule, node and message; a row selects its node in the quantized graph (and its
// counterpart in the float one). Findings used to be reachable only through the node they are on.
import type { LintFinding } from '../protocol/messages';
import { el, onRowActivate } from './dom';

const ORDER: Record<LintFinding['severity'], number> = { error: 0, warning: 1, info: 2 };

export class LintView {
  private findings: LintFinding[] = [];
  private selectedNodes = new Set<string>();
  private readonly tbody: HTMLTableSectionElement;

  constructor(table: HTMLTableElement, private readonly count: HTMLElement, private readonly onSelect: (finding: LintFinding) => void) {
    table.replaceChildren(el('thead', {}, el('tr', {}, ...['Severity', 'Rule', 'Node', 'Message'].map((t) => el('th', { text: t, attrs: { scope: 'col' } })))),
      (this.tbody = el('tbody')));
    onRowActivate(this.tbody, (row) => (row.dataset.index === undefined ? null : this.findings[Number(row.dataset.index)]), (f) => this.onSelect(f));
    this.set(null);
  }

  /** The pair's findings (null: the lint has not run yet). */
  set(findings: LintFinding[] | null): void {
    this.findings = (findings ?? []).slice().sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.check.localeCompare(b.check) || a.node.localeCompare(b.node));
    const n = (s: LintFinding['severity']) => this.findings.filter((f) => f.severity === s).length;
    this.count.textContent = findings === null ? '' : String(this.findings.length);
    this.count.title = findings === null ? '' : `${n('error')} errors, ${n('warning')} warnings, ${n('info')} notes`;
    if (findings === null) {
      this.tbody.replaceChildren(el('tr', {}, el('td', { class: 'muted', text: 'Checking quantization parameters…', attrs: { colspan: '4' } })));
      return;
    }
    if (!this.findings.length) {
      this.tbody.replaceChildren(el('tr', {}, el('td', { class: 'muted', text: 'No lint findings: every quantization parameter checked is valid.', attrs: { colspan: '4' } })));
      return;
    }
    this.tbody.replaceChildren(...this.findings.map((f, k) => el('tr', {
      attrs: { tabindex: '0', 'data-index': String(k), 'data-node': f.node, 'data-severity': f.severity, 'aria-selected': String(this.selectedNodes.has(f.node)) },
    }, el('td', {}, el('span', { class: `severity s-${f.severity}`, text: f.severity })), el('td', {}, el('code', { text: f.check })),
    el('td', { text: f.node, title: f.node }), el('td', { class: 'lint-message', text: f.message, title: f.message }))));
  }

  /** Marks the findings on the quantized nodes selected in the graphs. */
  select(quantNodes: string[]): void {
    this.selectedNodes = new Set(quantNodes);
    for (const row of this.tbody.rows) {
      if (row.dataset.node === undefined) continue;
      row.setAttribute('aria-selected', String(this.selectedNodes.has(row.dataset.node)));
    }
  }
}

// A month of days to pick from, the days that hold recordings marked (the listing's `days`, each dated with its own UTC offset).
import { button } from './dom.js';
import { pad } from './local-time.js';

const WEEKDAYS = ['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'];

export class Calendar {
  readonly element: HTMLElement;
  readonly #title: HTMLElement;
  readonly #grid: HTMLElement;
  readonly #onPick: (day: string) => void;
  #year = 1970;
  #month = 0;
  #selected = '';
  #recorded = new Set<string>();

  constructor(onPick: (day: string) => void) {
    this.#onPick = onPick;
    this.element = document.createElement('div');
    this.element.className = 'calendar';
    const head = document.createElement('div');
    head.className = 'calendar-head';
    const prev = button('‹', { title: 'previous month', onClick: () => this.#shift(-1) });
    const next = button('›', { title: 'next month', onClick: () => this.#shift(1) });
    this.#title = document.createElement('span');
    head.append(prev, this.#title, next);
    this.#grid = document.createElement('div');
    this.#grid.className = 'calendar-grid';
    this.element.append(head, this.#grid);
  }

  /** Shows the month of `day` with it selected; `recorded` are the days with recordings. */
  show(day: string, recorded: readonly string[]): void {
    const [y = 1970, m = 1] = day.split('-').map(Number);
    this.#year = y;
    this.#month = m - 1;
    this.#selected = day;
    this.#recorded = new Set(recorded);
    this.#render();
  }

  #shift(months: number): void {
    const d = new Date(this.#year, this.#month + months, 1);
    this.#year = d.getFullYear();
    this.#month = d.getMonth();
    this.#render();
  }

  #render(): void {
    this.#title.textContent = new Date(this.#year, this.#month, 1).toLocaleDateString(undefined, { year: 'numeric', month: 'long' });
    const cells: HTMLElement[] = WEEKDAYS.map((w) => {
      const el = document.createElement('span');
      el.className = 'weekday';
      el.textContent = w;
      return el;
    });
    const lead = (new Date(this.#year, this.#month, 1).getDay() + 6) % 7;
    for (let i = 0; i < lead; i++) cells.push(document.createElement('span'));
    const days = new Date(this.#year, this.#month + 1, 0).getDate();
    for (let d = 1; d <= days; d++) {
      const day = `${this.#year}-${pad(this.#month + 1)}-${pad(d)}`;
      const cell = button(String(d), { title: day, onClick: () => this.#onPick(day) });
      cell.className = 'day';
      cell.dataset['day'] = day;
      if (this.#recorded.has(day)) cell.classList.add('recorded');
      if (day === this.#selected) cell.classList.add('selected');
      cells.push(cell);
    }
    this.#grid.replaceChildren(...cells);
  }
}

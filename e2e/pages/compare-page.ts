import type { Locator, Page } from '@playwright/test';

/** /compare as a person finds it: two pickers, the first difference in words, and two timelines. */
export class ComparePage {
  readonly firstPicker: Locator;
  readonly secondPicker: Locator;
  /** The live region that says where the runs first differ. */
  readonly difference: Locator;
  readonly showDifference: Locator;
  readonly moment: Locator;
  readonly first: Locator;
  readonly second: Locator;

  constructor(readonly page: Page) {
    this.firstPicker = page.getByRole('group', { name: 'First history' });
    this.secondPicker = page.getByRole('group', { name: 'Second history' });
    this.difference = page.getByRole('status').filter({ hasText: /difference|Choose two/ });
    this.showDifference = page.getByRole('button', { name: 'Show the first difference' });
    this.moment = page.getByRole('slider', { name: 'Moment' });
    this.first = page.getByRole('region', { name: /^First: / });
    this.second = page.getByRole('region', { name: /^Second: / });
  }

  async goto(a?: string, b?: string) {
    const query = new URLSearchParams();
    if (a) query.set('a', a);
    if (b) query.set('b', b);
    await this.page.goto(`/compare${query.size ? `?${query}` : ''}`);
  }

  /** The line drawn across a timeline at the first difference. */
  marker(side: Locator) {
    return side.getByTestId('timeline-marker');
  }

  details(side: Locator) {
    return side.getByTestId('mark-details');
  }
}

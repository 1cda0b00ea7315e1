import type { ReactNode } from 'react';

/** The drawing area of the dashboard's bar charts, in the SVG's own units (CSS stretches it to the card). */
export const CHART_WIDTH = 600;
export const CHART_HEIGHT = 160;

/**
 * A chart drawn by hand as one image (no chart library: docs/decisions.md §19), named by its heading
 * (`titleId`) and described by the paragraph `${titleId}-summary` for screen readers.
 */
export function ChartSvg({ titleId, children }: { titleId: string; children: ReactNode }) {
  return (
    <svg
      viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
      role="img"
      aria-labelledby={titleId}
      aria-describedby={`${titleId}-summary`}
      preserveAspectRatio="none"
    >
      {children}
    </svg>
  );
}

import type { ComponentChildren } from 'preact';

/** What went wrong, said once, where the page would be. */
export function Problem({ text, children }: { text: string; children?: ComponentChildren }) {
  return (
    <p class="error" role="alert">
      {text}
      {children}
    </p>
  );
}

/** What went wrong, said once, where the page would be. */
export function Problem({ text }: { text: string }) {
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

import { useState } from 'preact/hooks';
import { ConsoleMeDocument, type ConsoleMeQuery } from '../../../clients/typescript/src';
import { Problem } from '../components/problem';
import { client, describeError, setSessionToken } from '../session';

/** Paste a bearer token; it is kept in memory only and checked for the admin scope before any page shows. */
export function SignInPage({ onSignedIn }: { onSignedIn: (me: ConsoleMeQuery['me']) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const token = text.trim();
    if (token === '') return setProblem('Paste a token first: `npm run token -- --scope admin` prints one.');
    setBusy(true);
    setProblem(null);
    setSessionToken(token);
    try {
      const { me } = await client.request(ConsoleMeDocument);
      if (!me.scopes.includes('admin')) {
        setSessionToken(null);
        setProblem(
          `This token has the scopes ${me.scopes.join(' ') || '(none)'}, not admin. The console is for team admins: sign in with a token that has the admin scope.`,
        );
        return;
      }
      setText('');
      onSignedIn(me);
    } catch (error) {
      setSessionToken(null);
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>recall-ledger admin</h1>
      <form onSubmit={(e) => void submit(e)}>
        <label for="token">Bearer token (kept in this tab's memory only)</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {problem !== null && <Problem text={problem} />}
    </main>
  );
}

import { useState } from 'preact/hooks';
import type { ConsoleMeQuery } from '../../clients/typescript/src';
import { FeedbackEventPage } from './pages/feedback-event-page';
import { FeedbackListPage } from './pages/feedback-list-page';
import { SignInPage } from './pages/sign-in-page';
import { SpacesPage } from './pages/spaces-page';
import { TrendPage } from './pages/trend-page';
import { routeHref, useRoute } from './route';
import { setSessionToken } from './session';

type Me = ConsoleMeQuery['me'];

const SECTIONS = [
  { path: 'feedback', label: 'Feedback' },
  { path: 'trends', label: 'Trends' },
  { path: 'spaces', label: 'Spaces' },
];

/** The console: a sign-in form until an admin token is given, then the read-only pages. */
export function App() {
  const [me, setMe] = useState<Me | null>(null);
  const route = useRoute();
  if (me === null) return <SignInPage onSignedIn={setMe} />;

  const signOut = () => {
    setSessionToken(null);
    setMe(null);
  };
  const [section, id] = route.path;
  return (
    <div class="console">
      <header class="bar">
        <strong class="brand">recall-ledger admin</strong>
        <nav>
          {SECTIONS.map((s) => (
            <a key={s.path} href={routeHref([s.path])} class={section === s.path ? 'current' : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
        <span class="who" title={`user ${me.userId}`}>
          team {me.teamId.slice(0, 8)}…
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        {section === 'feedback' && id !== undefined && <FeedbackEventPage id={id} />}
        {section === 'feedback' && id === undefined && <FeedbackListPage params={route.params} />}
        {section === 'trends' && <TrendPage params={route.params} />}
        {section === 'spaces' && <SpacesPage />}
        {!SECTIONS.some((s) => s.path === section) && <p class="error">No page here. Choose one above.</p>}
      </main>
    </div>
  );
}

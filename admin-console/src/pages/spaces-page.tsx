import { ConsoleSpacesDocument } from '../../../clients/typescript/src';
import { Problem } from '../components/problem';
import { useQuery } from '../use-query';

/** Every space of the team with its state and generation: feedback shows only for ACTIVE spaces at their current generation. */
export function SpacesPage() {
  const { data, problem } = useQuery(ConsoleSpacesDocument, {}, '');
  if (problem !== null) return <Problem text={problem} />;
  if (data === null) return <p>Loading…</p>;
  const { spaces } = data;
  return (
    <section>
      <h1>Spaces</h1>
      <p class="muted">Feedback and recall events are visible while their space is ACTIVE at the generation they were recorded at.</p>
      <table class="spaces">
        <thead>
          <tr>
            <th>Name</th>
            <th>Status</th>
            <th>Generation</th>
            <th>Members</th>
            <th>Id</th>
          </tr>
        </thead>
        <tbody>
          {spaces.map((s) => (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td class={`status-${s.status.toLowerCase()}`}>{s.status}</td>
              <td>{s.generation}</td>
              <td>{s.memberIds.length}</td>
              <td class="mono">{s.id}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {spaces.length === 0 && <p>The team has no space yet.</p>}
    </section>
  );
}

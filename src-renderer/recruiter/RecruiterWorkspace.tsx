// Placeholder: the recruiter workspace (jobs, applications, Data Champ discovery) replaces this file.
export function RecruiterWorkspace() {
  return (
    <section aria-labelledby="recruiter-title" className="card">
      <h2 id="recruiter-title">Recruiter</h2>
      <p className="muted">The recruiter workspace is not available in this version yet.</p>
    </section>
  );
}

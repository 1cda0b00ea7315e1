export function Later({ title, what }: { title: string; what: string }) {
  return (
    <>
      <h1>{title}</h1>
      <div className="card empty">
        <p>{what} come in a later version of the dashboard.</p>
        <p className="muted">Until then, the REST API and its reference at /docs have everything.</p>
      </div>
    </>
  );
}

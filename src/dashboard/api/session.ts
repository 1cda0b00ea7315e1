/** The query key of the signed-in session (GET /dashboard/api/session); null while signed out. */
export const SESSION_KEY = ['session'];

import type { Session } from '../api/types';
import { TestClocksSection } from './TestClocks';
import { AccountSection, EmailSection } from './AccountSections';
import { DunningSection, ProrationSection } from './BillingSections';
import { BusinessDetailsSection, PaymentPlansSection } from './BusinessSections';
import { TeamSection } from './TeamSection';
import { ProfileSection } from './ProfileSection';
import { PaymentProcessorSection } from './PaymentProcessorSection';

/**
 * Settings (docs/api.md "Dashboard team"): the account (name, time zone), its business details, the dunning schedule, proration, the payment
 * processor, payment plans, the team and invitations, test clocks in test mode, and the signed-in person's profile. What a role may do is the API's to decide:
 * the page only leaves out forms the role would be refused.
 */
export function Settings({ session }: { session: Session }) {
  const role = session.account?.role;
  const canDevelop = role === 'developer' || role === 'superadmin';
  return (
    <>
      <h1>Settings</h1>
      <AccountSection session={session} />
      <BusinessDetailsSection session={session} />
      <EmailSection session={session} />
      {canDevelop && <DunningSection />}
      {canDevelop && <ProrationSection />}
      {canDevelop && <PaymentProcessorSection />}
      <PaymentPlansSection session={session} />
      {canDevelop && <TeamSection session={session} />}
      <TestClocksSection />
      <ProfileSection session={session} />
    </>
  );
}

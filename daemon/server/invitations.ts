import { Type } from '@sinclair/typebox';
import { validator } from '../../protocols/validation.ts';
import { MAX_INVITATION_HOURS, type OfficialRole } from './access.ts';

/** POST /api/arbiter/invitations: who is invited, with which role, for how long. */
export const checkInvitationBody = validator(
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$', 'x-message': "must be the invited official's name, 1–100 characters without leading or trailing spaces" }),
      role: Type.Unsafe<OfficialRole>({ type: 'string', enum: ['arbiter', 'organiser'], 'x-message': 'must be "arbiter" or "organiser"' }),
      hours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_INVITATION_HOURS, 'x-message': `must be a number of hours above 0, at most ${MAX_INVITATION_HOURS}` })),
    },
    { additionalProperties: false },
  ),
  'the body',
);

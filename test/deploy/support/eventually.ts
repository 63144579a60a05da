/** The deploy tests wait as `npm start -- --deployed` does: one definition, in local/. */
export { eventually } from '../../../local/aws-emulator/eventually';

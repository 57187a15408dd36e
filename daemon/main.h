/* What main.c uses of the files beside it at the top of daemon/: nothing
 * below the top includes this header. */
#ifndef IBSMD_MAIN_H
#define IBSMD_MAIN_H

struct sm;

/* issm.c: IsSM on our port while we run. */
int issm_open(struct sm *sm);
void issm_close(struct sm *sm);

/* statectl.c: the control-socket commands status, sweep and dump. */
int statectl_register(struct sm *sm);

/* metrics_sm.c: the SM's own metric families (sweeps, SMPs, SA, multicast
 * groups, election) on the metrics page. */
int metrics_sm_register(struct sm *sm);

#endif

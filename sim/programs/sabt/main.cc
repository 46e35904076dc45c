// sabt: send-buffer tuning at a busy server (Matsuo, Hasegawa and Murata, SABT) in ns-3.
// The engine contract (contract/program.h): `sabt --help`, `sabt --describe`,
// `sabt --name=value ... [--run=R] [--seed=S] [--out=FILE]`.
#include "sabt-config.h"
#include "sabt-scenario.h"

#include "contract/program.h"

int
main(int argc, char* argv[])
{
    return satsweep::RunProgram<sabt::Config>({.name = "sabt",
                                               .version = SATSWEEP_PROGRAM_VERSION,
                                               .parameters = sabt::Parameters(),
                                               .outputs = sabt::Outputs(),
                                               .cost = sabt::Cost(),
                                               .run = &sabt::RunScenario},
                                              argc,
                                              argv);
}

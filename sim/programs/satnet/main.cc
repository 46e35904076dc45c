// satnet: TCP over ATM-UBR+ satellite links (Goyal, Jain, Kota et al. 1998) in ns-3.
// The engine contract (contract/program.h): `satnet --help`, `satnet --describe`,
// `satnet --name=value ... [--run=R] [--seed=S] [--out=FILE]`.
#include "satnet-config.h"
#include "satnet-scenario.h"

#include "contract/program.h"

int
main(int argc, char* argv[])
{
    return satsweep::RunProgram<satnet::Config>({.name = "satnet",
                                                 .version = SATSWEEP_PROGRAM_VERSION,
                                                 .parameters = satnet::Parameters(),
                                                 .outputs = satnet::Outputs(),
                                                 .cost = satnet::Cost(),
                                                 .run = &satnet::RunScenario},
                                                argc,
                                                argv);
}

// hello.cc - the C++ twin of hello.c, built with ips2c++.
#include <iostream>
#include <string>
#include <vector>

static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main()
{
    std::vector<std::string> words{"hello", "from", "ips2c++:"};
    for (const auto &w : words)
        std::cout << w << ' ';
    std::cout << "fib(10) = " << fib(10) << '\n';
    return 0;
}
